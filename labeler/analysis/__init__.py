"""Analyses over reports and final labels: groups of reports compared on the mining measures,
their share over time, and a study's final labels counted and crossed. The statistics
themselves are pure (group_statistics, tabulation); the other modules read the data and
assemble them."""
