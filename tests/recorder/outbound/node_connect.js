// GET https://HOST:PORT/PATH through $HTTPS_PROXY with Node's own tls (Node 20 ignores the proxy
// variables, so the CONNECT is made here); the certificate is checked against Node's store, which
// NODE_EXTRA_CA_CERTS extends. Prints the raw response; exit 3 on a TLS error.
const http = require("http");
const tls = require("tls");
const proxy = new URL(process.env.HTTPS_PROXY);
const [host, port, path] = process.argv.slice(2);
const req = http.request({ host: proxy.hostname, port: proxy.port, method: "CONNECT", path: `${host}:${port}` });
req.on("connect", (res, socket) => {
  const opts = /^[\d.]+$/.test(host) ? { socket, host } : { socket, servername: host };
  const s = tls.connect(opts, () => {
    s.write(`GET ${path} HTTP/1.1\r\nHost: ${host}:${port}\r\nConnection: close\r\n\r\n`);
  });
  let out = "";
  s.on("data", (d) => (out += d));
  s.on("end", () => process.stdout.write(out));
  s.on("error", (e) => {
    console.error(`tls error: ${e.code}`);
    process.exit(3);
  });
});
req.end();
