"""The dream cycle's policies: its parameters and shared rules, and the pure decisions of its
steps (rehearsal, strategic forgetting, clusters, category summaries)."""
