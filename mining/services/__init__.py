"""Writes of the mining app, one module per entity; each module's docstring names the locks
it takes.

- `repositories`: repositories, found or created by OWNER/NAME.
- `candidate_rules`: a repository's candidate rules and the candidate flags they set.
- `reports`: pages of reports with their comments, fix links and measures; stub reports.
- `restored_reports`: reports restored from a study's dataset export, all new or none.
- `offline_file`: a JSON Lines file of GitHub issues, imported whole or not at all.
- `import_jobs`: import jobs, their checkpoints and the repository's sync state.

Every writer validates first, then writes in one transaction, upserting on natural keys
(repository + number, repository + sha, comment id, report + target + evidence), so a page
stored twice (a redelivered task, a re-run) leaves exactly one copy. Services assume an
authorised caller: mining.permissions decides who may call them, and the pages and the API
ask it first.
"""
