"""An application's traffic: demand matrices (files and built-in patterns),
static planes planned for them, and circuit schedules (Melhem Sections 1 and 6)."""
