"""API of studies and labelling, one module per resource, each with its viewsets and the small
input and output serializers beside them. Views check input and access, then call one service.

Access: labeler.permissions decides; a study a user is no member of answers 404, an action
their role does not allow answers 403, an anonymous request 401.
"""
