"""Static files in production: hashed and compressed names (WhiteNoise), also where the pages'
ES modules import each other, so that a page never pairs a new module with a cached old one."""

from whitenoise.storage import CompressedManifestStaticFilesStorage


class StaticFilesStorage(CompressedManifestStaticFilesStorage):
    support_js_module_import_aggregation = True
