"""scriptapi.py PORTFILE LOGDIR SCRIPT [CERT KEY] — a scripted model API for the e2e tests.

Listens on an ephemeral port of 127.0.0.1 (written to PORTFILE) and speaks
enough of the Anthropic Messages API (/v1/messages), OpenAI's Chat
Completions (/v1/chat/completions) and Responses (/v1/responses) APIs and
Gemini's generateContent, streaming, with tool use, to drive a real agent CLI:
the Nth answer to the agent's main loop (a request that offers tools) is step N
of SCRIPT, a JSON list of steps, each {"tool": NAME, "input":
{...}} or {"text": "..."}; after the last step it says "done".  Requests
without tools (titles, summaries) get a short text.  Every request is logged:
"METHOD PATH" to LOGDIR/requests, its body to LOGDIR/NNN.json and its
headers to LOGDIR/NNN.headers, so a test can check what reached the model —
never a secret.  With CERT and KEY (PEM files) it speaks HTTPS instead of
plain HTTP: the upstream of jail's secrets broker, for a name of CERT.  With
SCRIPTAPI_WEBSOCKET=1 in its environment it also takes the Responses API over
a WebSocket, as Codex asks for first (GET /v1/responses, Upgrade: websocket;
each "response.create" message is logged as "WS PATH" and answered with the
same events, one text frame each); without it that GET gets a 404.
"""
import base64
import hashlib
import http.server
import json
import os
import socketserver
import ssl
import sys
import threading

portfile, logdir, script_path = sys.argv[1:4]
tls = sys.argv[4:6]
websocket = os.environ.get("SCRIPTAPI_WEBSOCKET") == "1"
histories = {}  # response id -> its input and output, for previous_response_id
os.makedirs(logdir, exist_ok=True)
lock = threading.Lock()
counter = [0]


def record(method, path, headers, body):
    """HEADERS None: a WebSocket message, whose headers are its upgrade's."""
    with lock:
        counter[0] += 1
        n = counter[0]
        if headers is not None:
            with open(os.path.join(logdir, "%03d.headers" % n), "w") as f:
                f.writelines("%s: %s\n" % kv for kv in headers.items())
        with open(os.path.join(logdir, "%03d.json" % n), "wb") as f:
            f.write(body)
        # last: a test that counts the requests finds the files of each
        with open(os.path.join(logdir, "requests"), "a") as f:
            f.write("%s %s\n" % (method, path))
        return n


def step_for(req):
    """The script step that answers REQ: one per assistant turn so far."""
    with open(script_path) as f:  # read late: a test writes it after the start
        script = json.load(f)
    turns = sum(1 for m in req.get("messages", []) if m.get("role") == "assistant")
    turns += sum(1 for c in req.get("contents", []) if c.get("role") == "model")
    # the Responses API sends the history back as items: earlier calls and answers
    turns += sum(1 for m in req.get("input", []) if isinstance(m, dict) and (
        m.get("type") == "function_call" or m.get("role") == "assistant"))
    if turns < len(script):
        return turns, script[turns]
    return turns, {"text": "done"}


def sse_events(model, block, idx):
    """The stream of events for one assistant message holding BLOCK."""
    msg_id = "msg_e2e_%03d" % idx
    yield "message_start", {"type": "message_start", "message": {
        "id": msg_id, "type": "message", "role": "assistant", "model": model,
        "content": [], "stop_reason": None, "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 1}}}
    if "tool" in block:
        start = {"type": "tool_use", "id": "toolu_e2e_%03d" % idx,
                 "name": block["tool"], "input": {}}
        delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        stop = "tool_use"
    else:
        start = {"type": "text", "text": ""}
        delta = {"type": "text_delta", "text": block["text"]}
        stop = "end_turn"
    yield "content_block_start", {"type": "content_block_start", "index": 0,
                                  "content_block": start}
    yield "content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}
    yield "content_block_stop", {"type": "content_block_stop", "index": 0}
    yield "message_delta", {"type": "message_delta",
                            "delta": {"stop_reason": stop, "stop_sequence": None},
                            "usage": {"output_tokens": 10}}
    yield "message_stop", {"type": "message_stop"}


def chat_chunks(model, block, idx):
    """The same as Chat Completions chunks (OpenAI-compatible servers)."""
    def chunk(delta, finish=None):
        return {"id": "chatcmpl-e2e-%03d" % idx, "object": "chat.completion.chunk",
                "created": 0, "model": model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    if "tool" in block:
        call = {"index": 0, "id": "call_e2e_%03d" % idx, "type": "function",
                "function": {"name": block["tool"], "arguments": json.dumps(block["input"])}}
        yield chunk({"role": "assistant", "content": None, "tool_calls": [call]})
        last = chunk({}, "tool_calls")
    else:
        yield chunk({"role": "assistant", "content": block["text"]})
        last = chunk({}, "stop")
    last["usage"] = {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20}
    yield last


def responses_events(model, block, idx, rid=None):
    """The same as Responses API events (Codex CLI); BLOCK None: no output."""
    rid = rid or "resp_e2e_%03d" % idx
    base = {"id": rid, "object": "response", "model": model, "status": "in_progress",
            "output": []}
    yield "response.created", {"type": "response.created", "response": base}
    if block is None:
        yield "response.completed", {"type": "response.completed", "response": dict(
            base, status="completed", usage={"input_tokens": 10, "output_tokens": 0,
                                             "total_tokens": 10})}
        return
    if "tool" in block:
        item = {"type": "function_call", "id": "fc_e2e_%03d" % idx,
                "call_id": "call_e2e_%03d" % idx, "name": block["tool"],
                "arguments": json.dumps(block["input"]), "status": "completed"}
    else:
        item = {"type": "message", "id": "msg_e2e_%03d" % idx, "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": block["text"], "annotations": []}]}
        added = dict(item, status="in_progress", content=[])
        yield "response.output_item.added", {"type": "response.output_item.added",
                                             "output_index": 0, "item": added}
        yield "response.output_text.delta", {"type": "response.output_text.delta",
                                             "item_id": item["id"], "output_index": 0,
                                             "content_index": 0, "delta": block["text"]}
    yield "response.output_item.done", {"type": "response.output_item.done",
                                        "output_index": 0, "item": item}
    done = dict(base, status="completed", output=[item], usage={
        "input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 10, "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 20})
    yield "response.completed", {"type": "response.completed", "response": done}


def gemini_answer(model, block, req):
    """The same as a Gemini generateContent response; a request that asks for
    JSON (Gemini CLI's routing and next-speaker checks) gets the schema's
    properties with plain values."""
    if "tool" in block:
        parts = [{"functionCall": {"name": block["tool"], "args": block["input"]}}]
    else:
        text = block.get("text", "ok")
        gen = req.get("generationConfig") or {}
        if gen.get("responseMimeType") == "application/json":
            schema = gen.get("responseJsonSchema") or gen.get("responseSchema") or {}
            plain = {"STRING": "user", "INTEGER": 1, "NUMBER": 1, "BOOLEAN": False}
            text = json.dumps({k: plain.get(str(v.get("type", "")).upper(), None)
                               for k, v in schema.get("properties", {}).items()})
        parts = [{"text": text}]
    return {"candidates": [{"content": {"role": "model", "parts": parts},
                            "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 10,
                              "totalTokenCount": 20},
            "modelVersion": model}


def whole_message(model, block, idx):
    """The same answer for a request that did not ask for a stream."""
    content = [{"type": "text", "text": block.get("text", "ok")}]
    return {"id": "msg_e2e_%03d" % idx, "type": "message", "role": "assistant",
            "model": model, "content": content, "stop_reason": "end_turn",
            "stop_sequence": None, "usage": {"input_tokens": 10, "output_tokens": 10}}


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def reply_json(self, code, obj):
        data = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def not_found(self):
        self.reply_json(404, {"type": "error", "error": {
            "type": "not_found_error", "message": "scriptapi: no such endpoint"}})

    def start_stream(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True

    def do_GET(self):
        record("GET", self.path, self.headers, b"")
        if websocket and self.headers.get("Upgrade", "").lower() == "websocket":
            return self.websocket()
        self.not_found()

    # --- the Responses API over a WebSocket (RFC 6455, no extensions) ---

    def websocket(self):
        key = self.headers.get("Sec-WebSocket-Key", "")
        accept = base64.b64encode(hashlib.sha1(
            (key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").encode()).digest()).decode()
        self.send_response(101)
        self.send_header("Upgrade", "websocket")
        self.send_header("Connection", "Upgrade")
        self.send_header("Sec-WebSocket-Accept", accept)
        self.end_headers()
        self.wfile.flush()
        self.close_connection = True
        while True:
            msg = self.ws_read()
            if msg is None:
                return
            n = record("WS", self.path, None, msg)
            req = json.loads(msg)
            if req.get("type") == "response.create":
                self.ws_respond(n, req)

    def ws_respond(self, n, req):
        """Answer a response.create.  Over a WebSocket Codex sends only the new
        input items, after previous_response_id: the history is kept here (as
        the real service does), and written out whole to NNN.history.json."""
        prev = histories.get(req.get("previous_response_id"), [])
        full = dict(req, input=prev + list(req.get("input") or []))
        with open(os.path.join(logdir, "%03d.history.json" % n), "w") as f:
            json.dump(full, f)
        rid = "resp_e2e_ws_%03d" % n
        if req.get("generate") is False:  # a warm-up: nothing to say yet
            block = idx = None
        elif req.get("tools"):
            idx, block = step_for(full)
        else:
            idx, block = 900 + n, {"text": "ok"}
        for _, data in responses_events(req.get("model", "gpt-e2e"), block, idx, rid):
            if data["type"] == "response.completed":
                histories[rid] = full["input"] + data["response"]["output"]
            self.ws_send(1, json.dumps(data).encode())

    def ws_send(self, opcode, data):
        n = len(data)
        head = bytes([0x80 | opcode])
        if n < 126:
            head += bytes([n])
        elif n < 65536:
            head += bytes([126]) + n.to_bytes(2, "big")
        else:
            head += bytes([127]) + n.to_bytes(8, "big")
        self.wfile.write(head + data)
        self.wfile.flush()

    def ws_frame(self):
        """One frame: (fin, opcode, payload), or None at the end."""
        head = self.rfile.read(2)
        if len(head) < 2:
            return None
        n = head[1] & 0x7F
        if n >= 126:
            n = int.from_bytes(self.rfile.read(2 if n == 126 else 8), "big")
        mask = self.rfile.read(4) if head[1] & 0x80 else b"\0\0\0\0"
        data = self.rfile.read(n)
        return head[0] & 0x80, head[0] & 0x0F, bytes(b ^ mask[i % 4] for i, b in enumerate(data))

    def ws_read(self):
        """The next text or binary message (pings answered), or None once closed."""
        msg = b""
        while True:
            frame = self.ws_frame()
            if frame is None:
                return None
            fin, opcode, data = frame
            if opcode == 8:
                self.ws_send(8, data[:2])
                return None
            if opcode == 9:
                self.ws_send(10, data)
                continue
            if opcode == 10:
                continue
            msg += data
            if fin:
                return msg

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        record("POST", self.path, self.headers, body)
        path = self.path.split("?")[0]
        if path.endswith("/count_tokens"):
            return self.reply_json(200, {"input_tokens": 10})
        if path.endswith(":countTokens"):
            return self.reply_json(200, {"totalTokens": 10})
        if path.lower().endswith("generatecontent"):
            return self.gemini(path, json.loads(body or b"{}"))
        chat = path.endswith("/chat/completions")
        responses = path.endswith("/responses")
        if not chat and not responses and not path.endswith("/v1/messages"):
            return self.not_found()
        req = json.loads(body or b"{}")
        model = req.get("model", "claude-e2e")
        if req.get("tools"):
            idx, block = step_for(req)
        else:
            idx, block = 900 + counter[0], {"text": "ok"}
        if chat:
            return self.stream_chat(model, block, idx, req.get("stream"))
        events = sse_events
        if responses:
            events = responses_events
        if not req.get("stream"):
            return self.reply_json(200, whole_message(model, block, idx))
        self.start_stream()
        for name, data in events(model, block, idx):
            self.wfile.write(("event: %s\ndata: %s\n\n" % (name, json.dumps(data))).encode())
            self.wfile.flush()

    def gemini(self, path, req):
        model = path.rsplit("/", 1)[-1].split(":")[0]
        if req.get("tools"):
            idx, block = step_for(req)
        else:
            idx, block = 900 + counter[0], {"text": "ok"}
        answer = gemini_answer(model, block, req)
        if not path.endswith(":streamGenerateContent"):
            return self.reply_json(200, answer)
        self.start_stream()
        self.wfile.write(("data: %s\n\n" % json.dumps(answer)).encode())
        self.wfile.flush()

    def stream_chat(self, model, block, idx, stream):
        if not stream:
            msg = {"role": "assistant", "content": block.get("text", "ok")}
            return self.reply_json(200, {"id": "chatcmpl-e2e", "object": "chat.completion",
                                         "created": 0, "model": model, "choices": [
                                             {"index": 0, "message": msg, "finish_reason": "stop"}]})
        self.start_stream()
        for c in chat_chunks(model, block, idx):
            self.wfile.write(("data: %s\n\n" % json.dumps(c)).encode())
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()

    def log_message(self, *args):
        pass


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


srv = Server(("127.0.0.1", 0), Handler)
if tls:
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ctx.load_cert_chain(*tls)
    ctx.set_alpn_protocols(["http/1.1"])
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
with open(portfile + ".tmp", "w") as f:
    f.write(str(srv.server_address[1]))
os.rename(portfile + ".tmp", portfile)
srv.serve_forever()
