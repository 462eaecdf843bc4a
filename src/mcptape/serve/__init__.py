"""A recording as a stand-in server: answers matched from the recorded session, injected hard outputs.

`run` serves one client over stdio (`session`: frame, match, answer), `http` over Streamable HTTP;
`pool` and `match` find the recorded answer, `carry` puts the new client's values into it, `inject`
plays the seed's hard outputs, and `clientprobe` judges a client against each of them. It frames and
classifies with the check core; see docs/serve.md.
"""
