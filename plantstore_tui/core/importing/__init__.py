"""Importing a file of plants, for every front end: the file read and checked whole (`files`)."""
