"""A study's labelled dataset as CSV, JSON or JSON Lines, with its datasheet.

A small pipeline: `dataset` reads the study's items in chunks (a fixed number of queries per
chunk) and `records` turns each item into one record for JSON and JSON Lines; for CSV,
`csv_rows` has the database write each chunk's lines in one query. `writers` turn records
or lines into text pieces over the standard library's writers, and `datasheet` describes the
dataset. `pipeline` joins them for the command, the API and the page. `records`,
`writers` and `markdown` are pure: no Django.
"""
