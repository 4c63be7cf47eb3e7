"""Costs of whole runs: what each workload costs (``estimate``), the same paths at a git
revision (``revision``, ``base``), which workload is which across the two (``matching``), what a
change adds (``diff``), budgets (``budgets``), and the reports of ``gpulint cost`` (``report``).
Prices and their arithmetic are ``linter.pricing``'s; each workload's figures are its ``cost``
fact."""
