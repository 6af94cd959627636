#!/usr/bin/env node
// An HTTP/2-only TLS front for the end-to-end tests' scripted API: each h2
// request goes on, streamed both ways, to the HTTPS/1.1 server behind it.
//
//     node h2_front.js PORTFILE CERT KEY CA BACKEND_PORT LOG
//
// Listens on 127.0.0.1 at a free port (written to PORTFILE); speaks h2 alone
// (a client that does not choose h2 by ALPN is refused: WebSockets go
// elsewhere).  The backend, 127.0.0.1:BACKEND_PORT, is reached over TLS,
// trusting CA, with the same server name the client asked for.  Each request
// is appended to LOG as "h2 METHOD PATH".
'use strict';
const fs = require('fs');
const http2 = require('http2');
const https = require('https');

const [portfile, cert, key, ca, backend, log] = process.argv.slice(2);
const caPem = fs.readFileSync(ca);
const hop = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection']);

const server = http2.createSecureServer({
  cert: fs.readFileSync(cert),
  key: fs.readFileSync(key),
  allowHTTP1: false,
});

server.on('request', (req, res) => {
  fs.appendFileSync(log, `h2 ${req.method} ${req.url}\n`);
  const authority = (req.headers[':authority'] || '').split(':')[0];
  const headers = {};
  for (const [k, v] of Object.entries(req.headers))
    if (!k.startsWith(':')) headers[k] = v;
  headers.host = authority;
  const up = https.request({
    host: '127.0.0.1', port: backend, method: req.method, path: req.url,
    headers, ca: caPem, servername: authority,
  }, (ur) => {
    const out = {};
    for (const [k, v] of Object.entries(ur.headers))
      if (!hop.has(k)) out[k] = v;
    res.writeHead(ur.statusCode, out);
    ur.pipe(res);
  });
  up.on('error', (e) => { res.writeHead(502); res.end(String(e)); });
  req.pipe(up);
});

server.listen(0, '127.0.0.1', () => {
  fs.writeFileSync(portfile + '.tmp', String(server.address().port));
  fs.renameSync(portfile + '.tmp', portfile);
});
