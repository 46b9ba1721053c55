"""Headless Chromium for checking a view page (the slow tests and the load benchmark).

Needs the ``view-test`` extra (selenium) and Debian's ``chromium`` and ``chromium-driver``
packages (``make view-deps``). Selenium is pointed at ``/usr/bin/chromedriver`` and
``/usr/bin/chromium`` and runs offline, so it never downloads a browser or a driver.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"

#: The flags every launch uses (this machine's network is closed; nothing may phone home).
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync")


def missing() -> str | None:
    """Why a browser cannot be started here, or None when it can."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install 'kbgym[view-test]')"
    for path in (CHROMIUM, CHROMEDRIVER):
        if not os.access(path, os.X_OK):
            return (f"{path} is missing (make view-deps: apt-get install -y chromium "
                    "chromium-driver)")
    return None


@contextmanager
def chromium(width: int = 1400, height: int = 1000):
    """A selenium WebDriver on headless Chromium with a fresh profile, closed on exit."""
    os.environ.setdefault("SE_OFFLINE", "true")  # selenium-manager must not fetch anything
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="kbgym-chromium-")
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for flag in (*FLAGS, f"--user-data-dir={profile}", f"--window-size={width},{height}"):
        opts.add_argument(flag)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def file_url(path: str | Path) -> str:
    return Path(path).resolve().as_uri()
