"""Log filters of the project's console log."""

import logging


class RefusalOnOneLine(logging.Filter):
    """A refused request (a 4xx that Django logs with its exception, such as a 403 from
    PermissionDenied) is one line with the reason, not a traceback: refusals are expected,
    and a traceback per refusal buries the errors that need one."""

    def filter(self, record: logging.LogRecord) -> bool:
        status = getattr(record, "status_code", None)
        if record.exc_info and status is not None and status < 500:
            reason = str(record.exc_info[1] or "")
            record.msg = record.getMessage() + (f" ({reason})" if reason else "")
            record.args = ()
            record.exc_info = None
            record.exc_text = None
        return True
