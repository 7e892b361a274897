"""``magdagdon play``: the game in the terminal (Textual, the ``tui`` extra).

Only :mod:`.scores` and :mod:`.words` work without Textual; :mod:`.app` and :mod:`.widgets`
need it. The command imports them once it knows Textual is there.
"""
