#!/usr/bin/env node
// An HTTP/2-only TLS server for the secrets-broker tests (all on loopback).
//
//     node h2_echo.js PORTFILE CERT KEY LOG
//
// Listens on 127.0.0.1 at a free port (written to PORTFILE once it listens)
// and speaks h2 alone (a client that does not choose h2 by ALPN is refused).
// Every request is appended to LOG as "METHOD PATH", "proto=VERSION
// session=N" (N counts TLS connections), its headers, "never-indexed: NAMES"
// (the fields HPACK sent as never indexed, if any), and "body=<body>"
// (over 4 KiB: "bodylen=N sha256=HEX"); the answer is "ok <n>\n".
// GET /big/N sends N MiB of the bytes 0..255 repeated, as fast as the client
// reads (flow control); POST /upload answers "len=N sha256=HEX"; GET /sse
// streams three events, one at a time, each after a request to /sse-next;
// GET /echo answers 400 with the request headers as its body (gzip when
// asked; /echo-unasked also when no accept-encoding names any, /echo-gzipped always); GET
// /echo-as-name answers with a header named x-VALUE, VALUE x-api-key's and x-api-key in x-echo, 7 bytes a write.  GET /trailers answers with a trailer "x-done: yes"; GET /goaway answers,
// then sends GOAWAY.  POST /echo-body answers with the request's body.  A stream reset by the client is logged as
// "reset PATH code=N"; GET /resets lists those so far, one a line.  GET
// /hang is never answered; each TLS connection is logged as "tls connection N
// opened" (and "... closed"), and SIGUSR1 closes them all; GET /paths lists the paths requested so far.  H2_MAX_STREAMS in the environment, if set, is
// the server's SETTINGS_MAX_CONCURRENT_STREAMS.
'use strict';
const fs = require('fs');
const http2 = require('http2');
const crypto = require('crypto');
const zlib = require('zlib');

const [portfile, cert, key, log] = process.argv.slice(2);
let count = 0;
let sessions = 0;
const waiting = [];
const resets = [];
const paths = [];

const server = http2.createSecureServer({
  cert: fs.readFileSync(cert),
  key: fs.readFileSync(key),
  allowHTTP1: false,
  settings: process.env.H2_MAX_STREAMS ?
    { maxConcurrentStreams: parseInt(process.env.H2_MAX_STREAMS, 10) } : {},
});
const live = new Set();
server.on('session', (s) => {
  s.jailId = ++sessions;
  live.add(s);
  fs.appendFileSync(log, `tls connection ${s.jailId} opened\n\n`);
  s.on('close', () => { live.delete(s); fs.appendFileSync(log, `tls connection ${s.jailId} closed\n\n`); });
});
// SIGUSR1: every connection is closed at once (a spare the broker keeps, too)
process.on('SIGUSR1', () => { for (const s of live) s.destroy(); });

function record(req, body) {
  count += 1;
  let text = `${req.method} ${req.url}\nproto=${req.httpVersion} session=${req.stream.session.jailId}\n`;
  for (const [k, v] of Object.entries(req.headers))
    text += `${k}: ${Array.isArray(v) ? v.join(', ') : v}\n`;
  const never = req.headers[http2.sensitiveHeaders] || [];
  if (never.length)
    text += `never-indexed: ${never.join(', ')}\n`;
  for (const [k, v] of Object.entries(req.trailers || {}))
    text += `trailer ${k}: ${v}\n`;
  if (body.length > 4096)
    text += `bodylen=${body.length} sha256=${crypto.createHash('sha256').update(body).digest('hex')}\n\n`;
  else
    text += `body=${body.toString('latin1')}\n\n`;
  fs.appendFileSync(log, text);
  return count;
}

function big(res, mib) {
  const chunk = Buffer.alloc(65536);
  for (let i = 0; i < chunk.length; i++) chunk[i] = i & 255;
  let left = mib * 16;
  res.writeHead(200, { 'content-length': String(mib << 20) });
  const more = () => {
    while (left > 0) {
      left -= 1;
      if (!res.write(chunk)) return res.once('drain', more);
    }
    res.end();
  };
  more();
}

function sse(res) {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  let i = 0;
  const next = () => {
    res.write(`data: event-${i}\n\n`);
    i += 1;
    if (i < 3) waiting.push(next); else res.end();
  };
  next();
}

server.on('request', (req, res) => {
  req.stream.on('close', () => {
    if (req.stream.rstCode) {
      resets.push(`${req.url} code=${req.stream.rstCode}`);
      fs.appendFileSync(log, `reset ${req.url} code=${req.stream.rstCode}\n\n`);
    }
  });
  const parts = [];
  req.on('data', (d) => parts.push(d));
  req.on('end', () => {
    const body = Buffer.concat(parts);
    const n = record(req, body);
    const path = req.url.split('?')[0];
    paths.push(path);
    if (path.startsWith('/big/')) return big(res, parseInt(path.slice(5), 10));
    if (path === '/sse') return sse(res);
    if (path === '/hang') return;
    if (path === '/sse-next' && waiting.length) waiting.shift()();
    if (path === '/upload') {
      const sum = crypto.createHash('sha256').update(body).digest('hex');
      return res.end(`len=${body.length} sha256=${sum}\n`);
    }
    if (path === '/echo-body') return res.end(body);
    if (path === '/echo-as-name') {  // x-api-key's value in a header's name
      res.writeHead(200, { ['x-' + (req.headers['x-api-key'] || '-')]: 'seen' });
      return res.end('ok\n');
    }
    if (path === '/echo' || path === '/echo-unasked' || path === '/echo-gzipped') {  // quotes the request back, in pieces
      let text = '';
      for (const [k, v] of Object.entries(req.headers)) text += `${k}: ${v}\n`;
      let out = Buffer.from(text);
      // /echo-unasked: no Accept-Encoding, any coding will do (RFC 9110 12.5.3)
      const gz = (req.headers['accept-encoding'] || '').includes('gzip') ||
        (path === '/echo-unasked' && !('accept-encoding' in req.headers)) ||
        path === '/echo-gzipped';  // gzip whatever was asked (a stored .gz)
      if (gz) out = zlib.gzipSync(out);
      res.writeHead(400, { 'x-echo': req.headers['x-api-key'] || '-',
        ...(gz ? { 'content-encoding': 'gzip' } : {}) });
      for (let i = 0; i < out.length; i += 7) res.write(out.subarray(i, i + 7));
      return res.end();
    }
    if (path === '/resets') return res.end(resets.join('\n') + '\n');
    if (path === '/paths') return res.end(paths.join('\n') + '\n');
    if (path === '/goaway') {
      res.end(`ok ${n}\n`);
      return req.stream.session.goaway();
    }
    if (path === '/trailers') {
      res.addTrailers({ 'x-done': 'yes' });
      return res.end(`ok ${n}\n`);
    }
    res.end(`ok ${n}\n`);
  });
});

server.listen(0, '127.0.0.1', () => {
  fs.writeFileSync(portfile + '.tmp', String(server.address().port));
  fs.renameSync(portfile + '.tmp', portfile);
});
