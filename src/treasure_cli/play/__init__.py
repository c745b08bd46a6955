"""Playing many games: the batch runner and the benchmark."""
