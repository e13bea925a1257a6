"""The workflows behind the commands, as plain functions over a Lock and ServerSpecs.

Nothing here prints or exits: functions return results or raise McplockError, and report
progress through callbacks. The CLI, the library API and the coming guard call them alike.
See docs/architecture.md for the module map.
"""
