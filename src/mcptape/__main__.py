from mcptape.entry import main

main()
