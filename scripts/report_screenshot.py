"""Screenshot a built HTML report's index page with headless chromium (the README's docs/report.png).

usage: python scripts/report_screenshot.py SITE_DIR OUT.png [HEIGHT]
(build the site first: kgbench report --format html --out SITE_DIR --db DB --runs A,B,...)
"""

from __future__ import annotations

import shutil
import sys
import time
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.service import Service


def main(site: str, out: str, height: int = 1500) -> None:
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", f"--window-size=1400,{height}"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"),
                              options=options)
    try:
        driver.get((Path(site).resolve() / "index.html").as_uri())
        time.sleep(2)  # the plots draw after load
        driver.save_screenshot(out)
    finally:
        driver.quit()


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2], *(int(a) for a in sys.argv[3:]))
