#!/usr/bin/env python3
"""A local stand-in for SMART Health Card issuers' websites, for tests.

Serves an issuer folder (with .well-known/jwks.json and .well-known/crl/<kid>.json) under
/issuer/, plus misbehaving issuers: /slow/ (answers after a long wait), /drip/ (sends one byte
a second), /huge/ (an endless body), /missing/ (404), /redirect-*/ (redirects elsewhere).
Prints the port it listens on (127.0.0.1) on the first line of stdout, then serves until killed.

Usage: test-issuer-server.py ISSUER_FOLDER [PORT]
"""
import http.server
import os
import socketserver
import sys
import time

ROOT = os.path.abspath(sys.argv[1])
PORT = int(sys.argv[2]) if len(sys.argv) > 2 else 0


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def send(self, status, body=b"", content_type="application/json", length=True):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Access-Control-Allow-Origin", "*")
        if length:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if body:
            self.wfile.write(body)

    def do_GET(self):
        path = self.path.split("?")[0]
        try:
            if path.startswith("/issuer/"):
                rel = path[len("/issuer/"):]
                full = os.path.abspath(os.path.join(ROOT, rel))
                if not full.startswith(ROOT) or not os.path.isfile(full):
                    return self.send(404, b'{"error":"not found"}')
                with open(full, "rb") as f:
                    return self.send(200, f.read())
            if path.startswith("/slow/"):
                time.sleep(30)
                return self.send(200, b'{"keys":[]}')
            if path.startswith("/drip/"):
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                for _ in range(60):
                    self.wfile.write(b" ")
                    self.wfile.flush()
                    time.sleep(1)
                return
            if path.startswith("/huge/"):
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                chunk = b" " * 65536
                for _ in range(4096):  # 256 MiB, unless the client hangs up first
                    self.wfile.write(chunk)
                return
            if path.startswith("/huge-declared/"):
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(1 << 30))
                self.end_headers()
                return
            if path.startswith("/redirect-other-host/"):
                self.send_response(302)
                self.send_header("Location", "http://localhost:%d/issuer/%s" % (self.server.server_address[1], path.split("/", 2)[2]))
                self.end_headers()
                return
            if path.startswith("/redirect-same-host/"):
                self.send_response(302)
                self.send_header("Location", "/issuer/" + path.split("/", 2)[2])
                self.end_headers()
                return
            if path.startswith("/redirect-private/"):
                self.send_response(302)
                self.send_header("Location", "https://10.1.2.3/issuer/.well-known/jwks.json")
                self.end_headers()
                return
            return self.send(404, b'{"error":"not found"}')
        except (BrokenPipeError, ConnectionResetError):
            pass


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


with Server(("127.0.0.1", PORT), Handler) as server:
    print(server.server_address[1], flush=True)
    server.serve_forever()
