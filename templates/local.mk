# templates/local.mk - GNU m4 templates, installed for the installed generator.
# Paths are relative to the top of the tree (included by Makefile.am).
# List each template in dist_templates_DATA as it is added.

templatesdir = $(pkgdatadir)/templates
dist_templates_DATA = $(NULL)
