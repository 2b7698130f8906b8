"""Headless Chromium driven over the DevTools protocol (--remote-debugging-pipe), standard library only.

Used by the report tests to load report.html, record every network request and console message
the page makes, evaluate DOM queries and take a full-page screenshot. No browser is downloaded:
the Debian `chromium` binary is used, and a test skips (exit 77) when it is absent.
"""
import base64
import json
import os
import select
import shutil
import subprocess
import tempfile
import time

CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-default-apps", "--disable-extensions", "--mute-audio", "--hide-scrollbars",
    "--remote-debugging-pipe",
]


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return "/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None


class Browser:
    """One headless browser with one page session; collects events while commands run."""

    def __init__(self, binary, timeout_s=90):
        self.timeout_s = timeout_s  # guard against a hung browser, not a timing assertion
        self.user_data = tempfile.mkdtemp(prefix="ltl-chromium-")
        cmd_r, self._cmd_w = os.pipe()
        self._resp_r, resp_w = os.pipe()
        # Chromium reads commands on fd 3 and writes replies on fd 4.
        shell = 'exec "$0" "$@" 3<&%d 4>&%d' % (cmd_r, resp_w)
        self.proc = subprocess.Popen(
            ["/bin/sh", "-c", shell, binary, *CHROMIUM_FLAGS, "--user-data-dir=" + self.user_data,
             "about:blank"],
            pass_fds=(cmd_r, resp_w), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        os.close(cmd_r)
        os.close(resp_w)
        self._buf = b""
        self._next_id = 0
        self.events = []
        self.session = None
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget",
                                 {"targetId": target, "flatten": True})["sessionId"]

    def _send(self, method, params, session):
        self._next_id += 1
        msg = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self._cmd_w, json.dumps(msg).encode() + b"\0")
        return self._next_id

    def _read_message(self, deadline):
        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("chromium did not answer")
            ready, _, _ = select.select([self._resp_r], [], [], left)
            if not ready:
                continue
            chunk = os.read(self._resp_r, 1 << 16)
            if not chunk:
                raise RuntimeError("chromium closed the DevTools pipe")
            self._buf += chunk
        raw, self._buf = self._buf.split(b"\0", 1)
        return json.loads(raw)

    def call(self, method, params=None, page=True):
        """Sends a command (to the page session when attached) and returns its result."""
        msg_id = self._send(method, params, self.session if page else None)
        deadline = time.monotonic() + self.timeout_s
        while True:
            msg = self._read_message(deadline)
            if msg.get("id") == msg_id:
                if "error" in msg:
                    raise RuntimeError("%s failed: %s" % (method, msg["error"]))
                return msg.get("result", {})
            if "method" in msg:
                self.events.append(msg)

    def wait_event(self, method):
        deadline = time.monotonic() + self.timeout_s
        for ev in self.events:
            if ev["method"] == method:
                return ev
        while True:
            msg = self._read_message(deadline)
            if "method" in msg:
                self.events.append(msg)
                if msg["method"] == method:
                    return msg

    def open(self, url, width=1280, height=900):
        """Loads url with network, console and log events recorded; returns after the load event."""
        for domain in ("Page", "Network", "Runtime", "Log"):
            self.call(domain + ".enable")
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
        self.call("Page.navigate", {"url": url})
        self.wait_event("Page.loadEventFired")
        # A final round trip so events emitted during load are collected.
        self.evaluate("document.readyState")

    def evaluate(self, expression):
        res = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in res:
            raise RuntimeError("evaluation failed: %s" % res["exceptionDetails"])
        return res["result"].get("value")

    def requested_urls(self):
        return [ev["params"]["request"]["url"] for ev in self.events
                if ev["method"] == "Network.requestWillBeSent"]

    def console_errors(self):
        errs = []
        for ev in self.events:
            m, p = ev["method"], ev.get("params", {})
            if m == "Runtime.exceptionThrown":
                errs.append("exception: %s" % p.get("exceptionDetails", {}).get("text"))
            elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                errs.append("console.%s: %s" % (p.get("type"), p.get("args")))
            elif m == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
                errs.append("log: %s" % p["entry"].get("text"))
        return errs

    def screenshot(self, path, width=1280):
        """Full-page PNG screenshot."""
        metrics = self.call("Page.getLayoutMetrics")
        size = metrics.get("cssContentSize") or metrics["contentSize"]
        height = int(size["height"]) + 1
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
        shot = self.call("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True})
        with open(path, "wb") as f:
            f.write(base64.b64decode(shot["data"]))
        return width, height

    def print_pdf(self, path):
        pdf = self.call("Page.printToPDF", {"printBackground": True, "preferCSSPageSize": False})
        with open(path, "wb") as f:
            f.write(base64.b64decode(pdf["data"]))

    def close(self):
        try:
            self.session = None
            self._send("Browser.close", {}, None)
            self.proc.wait(timeout=30)
        except Exception:  # noqa: BLE001 - best effort, then kill our own child
            self.proc.kill()
            self.proc.wait()
        finally:
            os.close(self._cmd_w)
            os.close(self._resp_r)
            shutil.rmtree(self.user_data, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
