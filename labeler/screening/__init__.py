"""Screening with a model: rank reports by a study's own final labels, estimate how many
positives are left, and the prevalence in the frame (issue 28). `model` and `estimate` are pure;
the rest reads and writes the study."""
