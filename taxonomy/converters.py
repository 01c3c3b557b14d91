"""The path converter for a codebook's key or version in an address (`<codebook:version>`).

Every stored key and version is given an address, whatever it holds: a value from before
the rule (taxonomy.codebook_file.VERSION_RULE), or written behind the rule's back, must not
make every page that links to it fail. Percent-encoded into the address (a "/" would split
it, "." and ".." would be read as the folder and its parent), decoded back; a value that
follows the rule is its own address.
"""

from urllib.parse import quote, unquote


class CodebookNameConverter:
    regex = "[^/]+"

    def to_python(self, value: str) -> str:
        name = unquote(value)
        if "\x00" in name:
            raise ValueError("a codebook's key or version holds no NUL")
        return name

    def to_url(self, value) -> str:
        address = quote(str(value), safe="")
        if address.startswith("."):
            address = "%2E" + address[1:]
        return address
