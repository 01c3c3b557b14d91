"""A file the page downloads, read as a user's program would."""


def download(page, click) -> tuple[str, str]:
    """(suggested file name, text) of the download that `click()` starts."""
    with page.expect_download() as caught:
        click()
    found = caught.value
    with open(found.path(), encoding="utf-8", newline="") as file:
        return found.suggested_filename, file.read()
