"""Tests of mcptape probe."""
