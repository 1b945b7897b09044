"""A context class whose cheap prehook reads this module's globals, for
`tests/test_contexts_mutants.py` (a hook pasted beside another module's hook)."""

from contexts import Context

WHO = "contexts_mutants_module"  # the test module has a global of the same name


class PreReadsItsModule(Context):
    def prehook(self, f, *args, **kwargs):
        self.metadata.append(("pre", WHO))
