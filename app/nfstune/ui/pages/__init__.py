"""The main window's pages."""
