"""Headless Chromium (Debian's `chromium`) driven over the DevTools protocol with aiohttp,
for the tests of the HTML report, its benchmark and its screenshot script.

`Browser()` starts one Chromium with a fresh profile; `page.open(url)` loads a page and
waits for its load event; `page.js(expression)` evaluates in the page and returns the
value; `page.screenshot(path)` saves a PNG of the viewport. Chromium finds its port
itself and writes it to `DevToolsActivePort` in the profile, read here.
"""

from __future__ import annotations

import asyncio
import base64
import itertools
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from types import TracebackType
from typing import Any

import aiohttp

NAMES = ("chromium", "chromium-browser")


def find_chromium() -> str | None:
    """The Chromium executable, from $CHROMIUM or the PATH; None when there is none."""
    if os.environ.get("CHROMIUM"):
        return os.environ["CHROMIUM"]
    return next((found for name in NAMES if (found := shutil.which(name))), None)


class BrowserError(RuntimeError):
    pass


class Browser:
    """One headless Chromium and one page in it."""

    def __init__(self, width: int = 1280, height: int = 900, timeout: float = 30.0) -> None:
        executable = find_chromium()
        if executable is None:
            raise BrowserError("no chromium on the PATH (apt-get install chromium)")
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="arena-chromium-")
        self.process = subprocess.Popen(
            [
                executable,
                "--headless",
                "--no-sandbox",  # root in a container has no user namespace for the sandbox
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--no-first-run",
                "--hide-scrollbars",
                "--remote-debugging-port=0",
                f"--user-data-dir={self.profile}",
                f"--window-size={width},{height}",
                "about:blank",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self.loop = asyncio.new_event_loop()
        self._ids = itertools.count(1)
        self._events: list[dict[str, Any]] = []
        try:
            self.loop.run_until_complete(self._connect())
        except BaseException:
            self.close()
            raise

    def _port(self) -> int:
        active = Path(self.profile, "DevToolsActivePort")
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise BrowserError(f"chromium exited with status {self.process.returncode}")
            lines = active.read_text().split("\n") if active.exists() else []
            if lines and lines[0].strip().isdigit():
                return int(lines[0])
            time.sleep(0.05)
        raise BrowserError(f"chromium did not open its DevTools port in {self.timeout:g} s")

    async def _connect(self) -> None:
        port = self._port()
        self.session = aiohttp.ClientSession()
        async with self.session.get(f"http://127.0.0.1:{port}/json/list") as response:
            targets = await response.json(content_type=None)
        page = next(t for t in targets if t.get("type") == "page")
        self.ws = await self.session.ws_connect(page["webSocketDebuggerUrl"], max_msg_size=0)
        await self._call("Page.enable")
        await self._call("Runtime.enable")

    async def _call(self, method: str, **params: Any) -> dict[str, Any]:
        ident = next(self._ids)
        await self.ws.send_str(json.dumps({"id": ident, "method": method, "params": params}))
        while True:
            message = await asyncio.wait_for(self.ws.receive(), self.timeout)
            if message.type != aiohttp.WSMsgType.TEXT:
                raise BrowserError(f"the DevTools connection closed ({message.type})")
            data = json.loads(message.data)
            if data.get("id") == ident:
                if "error" in data:
                    raise BrowserError(f"{method}: {data['error']}")
                result: dict[str, Any] = data.get("result", {})
                return result
            if "method" in data:
                self._events.append(data)

    async def _wait_event(self, method: str) -> dict[str, Any]:
        for i, event in enumerate(self._events):
            if event["method"] == method:
                return self._events.pop(i)
        while True:
            message = await asyncio.wait_for(self.ws.receive(), self.timeout)
            data = json.loads(message.data)
            if data.get("method") == method:
                return data
            if "method" in data:
                self._events.append(data)

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        """A DevTools protocol command; its result."""
        return self.loop.run_until_complete(self._call(method, **params))

    def before_load(self, source: str) -> None:
        """Run `source` in every page this browser opens from now on, before its scripts."""
        self.call("Page.addScriptToEvaluateOnNewDocument", source=source)

    def open(self, url: str) -> None:
        """Load `url` and wait until its load event (its scripts have run by then)."""

        async def go() -> None:
            self._events.clear()
            await self._call("Page.navigate", url=url)
            await self._wait_event("Page.loadEventFired")

        self.loop.run_until_complete(go())

    def js(self, expression: str) -> Any:
        """Evaluate `expression` in the page (promises awaited); its value as JSON data."""
        result = self.call(
            "Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True
        )
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            raise BrowserError(details.get("exception", {}).get("description") or str(details))
        return result["result"].get("value")

    def screenshot(self, path: Path, *, full_page: bool = False) -> None:
        params: dict[str, Any] = {"format": "png"}
        if full_page:
            params["captureBeyondViewport"] = True
        data = self.call("Page.captureScreenshot", **params)["data"]
        path.write_bytes(base64.b64decode(data))

    def close(self) -> None:
        async def shut() -> None:
            if getattr(self, "ws", None) is not None:
                await self.ws.close()
            if getattr(self, "session", None) is not None:
                await self.session.close()

        try:
            self.loop.run_until_complete(shut())
        finally:
            self.loop.close()
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self) -> Browser:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
