"""Helpers of the test suite (not tests): fixtures' builders, fake servers, terminal drivers."""
