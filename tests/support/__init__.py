"""Test helpers shared across areas (stand-in servers, builders)."""
