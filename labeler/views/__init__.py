"""Pages of the labeler app, one module per resource: the home page, studies (list, set-up,
overview, batches, label import), members, the labelling page and the items of a study.

Views stay thin: they ask labeler.permissions who may see what (non-members get a 404),
validate input with labeler.forms and call one service or selector.
"""
