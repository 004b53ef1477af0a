"""The embedded backend: one pyoxigraph store and one sqlite trace index per collection."""
