"""Human evaluation campaigns with several annotators: definition, assignment,
quality control, agreement and the choice of items under a budget."""
