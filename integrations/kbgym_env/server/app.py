"""The ASGI app OpenEnv's manifest names (``server.app:app``): ``kbgym serve`` on the default
universe with the default policy. ``main()`` is ``kbgym serve`` with its flags."""

from kbgym.serve import make_app

app = make_app()


def main(argv=None):
    from kbgym.cli import main as kbgym_main

    return kbgym_main(["serve", *(argv if argv is not None else __import__("sys").argv[1:])])


if __name__ == "__main__":
    raise SystemExit(main())
