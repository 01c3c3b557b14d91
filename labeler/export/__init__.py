"""A study's labelled dataset as CSV, JSON or JSON Lines, with its datasheet.

A small pipeline: `dataset` reads the study's items in chunks (a fixed number of queries per
chunk), `records` turns each item into one record (and a record into CSV cells), `writers`
turn records into text pieces over the standard library's writers, and `datasheet` describes
the dataset. `pipeline` joins them for the command, the API and the page. `records`,
`writers` and `markdown` are pure: no Django.
"""
