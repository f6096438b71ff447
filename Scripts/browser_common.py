"""What the browser tests share: waiting for a form's answer, and checking a page fits a phone."""
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait


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
