"""Pure computation (no Qt): data model, preprocessing, measures, statistics."""
