"""The benchmarks' own database on the server at `args.pg`: made afresh, dropped after."""


def database(args, action: str) -> None:
    """Drop `args.database` if it exists; with action "create", make it anew."""
    import psycopg2

    connection = psycopg2.connect(f"{args.pg}/postgres")
    connection.autocommit = True
    with connection.cursor() as cursor:
        cursor.execute(f'DROP DATABASE IF EXISTS "{args.database}" WITH (FORCE)')
        if action == "create":
            cursor.execute(f'CREATE DATABASE "{args.database}"')
    connection.close()
