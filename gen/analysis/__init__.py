"""Analysis: modules and clusters, bisection, family comparisons, reports."""
