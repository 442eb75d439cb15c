"""Test support: kernel specifications read from corpus headers and random CFG generators. Used by the
tests and the fuzz and benchmark tools; never by the command line."""
