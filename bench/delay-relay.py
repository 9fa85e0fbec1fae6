#!/usr/bin/env python3
"""A TCP relay that delays every answer from its upstream by a fixed time: a remote store's first-byte latency
for benchmarks on loopback, where tc netem is not available.

    delay-relay.py LISTEN_PORT UPSTREAM_HOST UPSTREAM_PORT DELAY_MS

Requests go upstream at once; each chunk of the answer is forwarded DELAY_MS after it arrived (order kept), so
every request/response exchange takes DELAY_MS longer, as over a link with that round-trip time. Connecting is not
delayed (a real remote would charge a round trip, and a TLS handshake, for each new connection; reused connections
do not pay it). At most QUEUE chunks wait per connection; the relay stops reading upstream while they do.
Listens on 127.0.0.1 only; runs until killed.
"""
import asyncio
import sys

CHUNK = 256 * 1024
QUEUE = 256  # chunks held per connection: at most 64 MiB in flight


async def forward(reader, writer):
    try:
        while True:
            data = await reader.read(CHUNK)
            if not data:
                break
            writer.write(data)
            await writer.drain()
    except (ConnectionError, asyncio.CancelledError):
        pass
    finally:
        if writer.can_write_eof():
            try:
                writer.write_eof()
            except OSError:
                pass


async def forward_delayed(reader, writer, delay):
    loop = asyncio.get_running_loop()
    queue = asyncio.Queue(QUEUE)

    async def release():
        while True:
            due, data = await queue.get()
            wait = due - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            if data is None:
                break
            writer.write(data)
            await writer.drain()
        writer.close()

    sender = asyncio.create_task(release())
    try:
        while True:
            data = await reader.read(CHUNK)
            await queue.put((loop.time() + delay, data or None))
            if not data:
                break
    except ConnectionError:
        await queue.put((loop.time(), None))
    try:
        await sender
    except ConnectionError:
        pass


async def main():
    listen_port, host, port, delay_ms = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), float(sys.argv[4])

    async def handle(client_reader, client_writer):
        try:
            up_reader, up_writer = await asyncio.open_connection(host, port)
        except OSError:
            client_writer.close()
            return
        await asyncio.gather(forward(client_reader, up_writer),
                             forward_delayed(up_reader, client_writer, delay_ms / 1000.0))
        up_writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", listen_port)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main())
