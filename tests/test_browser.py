"""The HTML report in a real browser (headless Debian chromium through selenium): it loads from
file:// without a console error, every plot draws its marks, the operator links open their pages,
and the hostile candidate's script never runs. Skipped where no browser is installed:
`bash scripts/install_browser.sh` installs it."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from kernelgenbench import api

from . import report_store

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
webdriver = pytest.importorskip("selenium.webdriver", reason="selenium not installed (pip install -e '.[test]')")
pytest.importorskip("plotly", reason="the HTML report needs the `report` extra (pip install -e '.[report]')")
pytestmark = pytest.mark.skipif(CHROMIUM is None or CHROMEDRIVER is None,
                                reason="no chromium/chromedriver: run `bash scripts/install_browser.sh`")

# Marks a drawn plot has: scatter points and lines, bars, the heat map's image.
MARKS = ".scatterlayer .point, .scatterlayer .js-line, .barlayer .point, .hm image"


@pytest.fixture(scope="module")
def browser():
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1000"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    db = report_store.build(tmp_path_factory.mktemp("store") / "k.db")
    return api.report_html(db, tmp_path_factory.mktemp("site"))


def console_errors(browser) -> list[str]:
    return [e["message"] for e in browser.get_log("browser") if e["level"] in ("SEVERE", "ERROR")]


def wait_for(browser, script: str, timeout: float = 20.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = browser.execute_script(script)
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for: {script}")


def test_the_report_renders_from_file_with_every_plot_drawn_and_no_script_of_a_candidate(browser, site, tmp_path):
    browser.get(site.as_uri())
    expected = browser.execute_script("return document.querySelectorAll('div.plot').length")
    assert expected == 5  # accuracy vs speed-up, fast_p, statuses, cost vs accuracy, heat map
    wait_for(browser, "return document.querySelectorAll('div.plot[data-rendered=true]').length === "
                      f"{expected}")
    marks = browser.execute_script(
        f"return [...document.querySelectorAll('div.plot')].map(d => [d.id, d.querySelectorAll('{MARKS}').length])")
    assert all(n > 0 for _, n in marks), marks
    assert console_errors(browser) == []
    assert browser.execute_script("return window.__pwned") is None
    assert browser.save_screenshot(str(tmp_path / "report.png"))
    assert (tmp_path / "report.png").stat().st_size > 10_000


def test_operator_links_open_their_pages_and_the_hostile_source_is_only_text(browser, site):
    browser.get(site.as_uri())
    link = browser.find_element("css selector", "#difficulty a.op[href$='aten--sort.html']")
    browser.execute_script("arguments[0].scrollIntoView()", link)
    link.click()
    wait_for(browser, "return location.href.endsWith('ops/aten--sort.html')")
    assert browser.find_element("css selector", "h1").text == "aten::sort"
    sources = browser.execute_script("return [...document.querySelectorAll('.source')].map(e => e.textContent)")
    assert any(report_store.HOSTILE.split("<img")[0] in s for s in sources)
    assert browser.execute_script("return window.__pwned") is None
    assert console_errors(browser) == []
    browser.find_element("link text", "All operators").click()
    wait_for(browser, "return location.href.endsWith('index.html#difficulty')")
