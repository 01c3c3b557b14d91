"""A study's people: members with their roles and progress, and invitations for new people."""
