"""A WebSocket echo server for the page tests (RFC 6455, enough of it): prints its port,
then answers each client's text and binary messages with the same message, and a close
with the same close. One thread a client; ends when its standard input closes."""
import base64
import hashlib
import socket
import struct
import sys
import threading

GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


def read_exact(conn, n):
    out = b""
    while len(out) < n:
        chunk = conn.recv(n - len(out))
        if not chunk:
            raise EOFError
        out += chunk
    return out


def send_frame(conn, opcode, payload):
    head = bytes([0x80 | opcode])
    n = len(payload)
    if n < 126:
        head += bytes([n])
    elif n < 65536:
        head += bytes([126]) + struct.pack(">H", n)
    else:
        head += bytes([127]) + struct.pack(">Q", n)
    conn.sendall(head + payload)


def serve(conn):
    try:
        request = b""
        while b"\r\n\r\n" not in request:
            chunk = conn.recv(4096)
            if not chunk:
                return
            request += chunk
        key = b""
        for line in request.split(b"\r\n"):
            if line.lower().startswith(b"sec-websocket-key:"):
                key = line.split(b":", 1)[1].strip()
        accept = base64.b64encode(hashlib.sha1(key + GUID).digest())
        conn.sendall(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
                     b"Connection: Upgrade\r\nSec-WebSocket-Accept: " + accept + b"\r\n\r\n")
        message, kind = b"", 1
        while True:
            b0, b1 = read_exact(conn, 2)
            opcode, n = b0 & 15, b1 & 127
            if n == 126:
                n = struct.unpack(">H", read_exact(conn, 2))[0]
            elif n == 127:
                n = struct.unpack(">Q", read_exact(conn, 8))[0]
            mask = read_exact(conn, 4) if b1 & 128 else b"\0\0\0\0"
            data = bytes(c ^ mask[i % 4] for i, c in enumerate(read_exact(conn, n)))
            if opcode == 8:
                send_frame(conn, 8, data[:2])
                return
            if opcode == 9:
                send_frame(conn, 10, data)
                continue
            if opcode in (1, 2):
                kind, message = opcode, data
            elif opcode == 0:
                message += data
            if b0 & 0x80 and opcode in (0, 1, 2):
                send_frame(conn, kind, message)
    except (EOFError, OSError):
        pass
    finally:
        conn.close()


def main():
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    print(server.getsockname()[1], flush=True)

    def accept():
        while True:
            conn, _ = server.accept()
            threading.Thread(target=serve, args=(conn,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    sys.stdin.read()


main()
