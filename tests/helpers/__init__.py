"""What the tests share: paths, databases, servers, clients, pages and games, never a test of their own."""
