"""What the browser tests share: waiting for a form's answer, checking a page fits a phone, and
an app's redirect URI on loopback."""
import http.server

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait


class Callback(http.server.BaseHTTPRequestHandler):
    """An app's redirect URI: a page that only says it was reached."""

    def do_GET(self):
        body = b"<!doctype html><title>callback</title><p>back at the app"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def submitted(driver, button_id):
    """Clicks a submit button and waits for the page it leads to; returns that page's title."""
    old = driver.find_element(By.TAG_NAME, "html")
    driver.find_element(By.ID, button_id).click()
    WebDriverWait(driver, 20).until(lambda d: d.find_element(By.TAG_NAME, "html").id != old.id)
    return driver.title


def fits(driver, width=390):
    """Whether the page has no sideways scrolling at `width` pixels."""
    driver.set_window_size(width, 900)
    return driver.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")
