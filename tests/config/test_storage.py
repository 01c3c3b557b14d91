"""Production's static files: the pages' ES modules import each other by their hashed names."""

import re
import shutil
from pathlib import Path

from config.storage import StaticFilesStorage

SCRIPTS = Path(__file__).resolve().parents[2] / "static" / "js"


def test_module_imports_name_the_hashed_files(tmp_path):
    shutil.copytree(SCRIPTS, tmp_path / "js")
    storage = StaticFilesStorage(location=tmp_path, base_url="/static/")
    names = [f"js/{path.name}" for path in SCRIPTS.glob("*.js")]

    for _name, _hashed, processed in storage.post_process({n: (storage, n) for n in names}):
        assert not isinstance(processed, Exception), processed

    label = (tmp_path / storage.stored_name("js/label.js")).read_text()
    imported = re.findall(r'^import .* from "\./(.*)";$', label, re.M)
    report = storage.stored_name("js/report.js").removeprefix("js/")
    assert re.fullmatch(r"report\.[0-9a-f]{12}\.js", report)
    assert report in imported and "report.js" not in imported
    assert all((tmp_path / "js" / name).exists() for name in imported)
