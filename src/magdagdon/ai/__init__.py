"""Players for the engine: baselines, the strong bot, hints and simulation."""
