"""An SMTP server for the e-mail tests (.ci/smtp-server start PORT DIR).

aiosmtpd takes every message and this handler writes each to DIR as one JSON
file, written whole then renamed (a reader never sees half of one):
{"mailFrom", "rcptTos", "headers": {name: [values]}, "text", "html", "raw"}.
A test finds its messages by their recipients.
"""

import asyncio
import email
import email.policy
import itertools
import json
import os
import sys
import time

from aiosmtpd.controller import Controller

COUNTER = itertools.count()


class Keep:
    def __init__(self, folder):
        self.folder = folder

    async def handle_DATA(self, server, session, envelope):
        raw = envelope.original_content or envelope.content
        message = email.message_from_bytes(raw, policy=email.policy.default)
        headers = {}
        for name, value in message.items():
            headers.setdefault(name, []).append(str(value))
        parts = {"text": None, "html": None}
        for part in message.walk():
            kind = part.get_content_type()
            if kind == "text/plain" and parts["text"] is None:
                parts["text"] = part.get_content()
            elif kind == "text/html" and parts["html"] is None:
                parts["html"] = part.get_content()
        record = {
            "mailFrom": envelope.mail_from,
            "rcptTos": list(envelope.rcpt_tos),
            "headers": headers,
            "text": parts["text"],
            "html": parts["html"],
            "raw": raw.decode("utf-8", "replace"),
        }
        name = f"{time.time_ns()}-{os.getpid()}-{next(COUNTER)}"
        tmp = os.path.join(self.folder, f".{name}.tmp")
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(record, f)
        os.rename(tmp, os.path.join(self.folder, f"{name}.json"))
        return "250 2.0.0 Kept as " + name


def main():
    port, folder = int(sys.argv[1]), sys.argv[2]
    os.makedirs(folder, exist_ok=True)
    controller = Controller(Keep(folder), hostname="127.0.0.1", port=port)
    controller.start()
    print(f"smtp: listening on 127.0.0.1:{port}, keeping messages in {folder}", flush=True)
    try:
        asyncio.run(asyncio.Event().wait())
    finally:
        controller.stop()


if __name__ == "__main__":
    main()
