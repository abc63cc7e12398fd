"""Open the page in Debian's headless Chromium, driven by Playwright for Python, with the network
blocked (every request that is not ``file:`` is aborted and recorded).  For the tests and for
screenshots; Playwright's own browser downloads are never used."""
from __future__ import annotations

import contextlib
import shutil
import tempfile
from pathlib import Path
from typing import Iterator

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def why_no_browser() -> str | None:
    """None when the page can be opened here, else why not (for a test's skip)."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright (pip) is not installed: pip install -e '.[test]'"
    if not Path(CHROMIUM).exists() and not shutil.which("chromium"):
        return f"no chromium at {CHROMIUM} (apt-get install -y chromium)"
    return None


@contextlib.contextmanager
def open_page(path: str | Path, size: tuple[int, int] = (1280, 800), timeout_s: float = 120.0,
              query: str = "") -> Iterator:
    """A Playwright page showing the HTML file, loaded and ready (``window.xiangshe.ready``); ``query``: the
    URL's query string (``idle=2``: the kiosk's attract loop after 2 s without input).
    ``page.blocked`` lists the URLs the page tried to reach (all aborted); ``page.errors`` its errors."""
    from playwright.sync_api import sync_playwright

    exe = CHROMIUM if Path(CHROMIUM).exists() else shutil.which("chromium")
    with sync_playwright() as pw, tempfile.TemporaryDirectory(prefix="xiangshe-chromium-") as profile:
        ctx = pw.chromium.launch_persistent_context(profile, executable_path=exe, headless=True, args=ARGS,
                                                    viewport={"width": size[0], "height": size[1]})
        try:
            blocked: list[str] = []

            def route(r):
                if r.request.url.startswith("file:"):
                    r.continue_()
                else:
                    blocked.append(r.request.url)
                    r.abort()
            ctx.route("**/*", route)
            page = ctx.new_page()
            page.set_default_timeout(timeout_s * 1000)
            _watch(page, blocked)
            page.goto(Path(path).resolve().as_uri() + (f"?{query}" if query else ""))
            page.evaluate("window.xiangshe.ready")
            yield page
        finally:
            ctx.close()


def _watch(page, blocked: list[str]) -> None:
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.blocked, page.errors = blocked, errors


@contextlib.contextmanager
def another_tab(page, path: str | Path, query: str = "") -> Iterator:
    """A second tab of ``page``'s browser (the same blocked network) showing the HTML file, loaded and ready."""
    tab = page.context.new_page()
    try:
        tab.set_default_timeout(120_000)
        _watch(tab, page.blocked)
        tab.goto(Path(path).resolve().as_uri() + (f"?{query}" if query else ""))
        tab.evaluate("window.xiangshe.ready")
        yield tab
    finally:
        tab.close()
