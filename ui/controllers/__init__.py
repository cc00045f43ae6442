"""The main window's actions, one controller per domain (as Anki's ``aqt/operations``): each
gets the window, owns its domain's slots, dialogs and jobs, and reaches the store through
``window.engram`` and ``window.runner``. MainWindow builds the frame and wires them.

``menus`` and ``undo`` are made with the frame (before the store opens, so nothing heavy is
imported at their top); the others import the store's parts and are made at ``attach``."""
