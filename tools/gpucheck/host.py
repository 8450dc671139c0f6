"""The side effects of the GPU check that tests replace: running commands."""

import subprocess


class Host:
    def run(self, argv, output=None, env=None, timeout=None, cwd=None):
        """Runs `argv` and returns its exit status. Its stdout goes to the file `output` when
        given, else to ours; its stderr to ours. A command past `timeout` seconds is killed
        (status 124), one that cannot start gets 127."""
        try:
            if output is None:
                return subprocess.run(argv, env=env, timeout=timeout, cwd=cwd).returncode
            with open(output, "w") as file:
                return subprocess.run(argv, stdout=file, env=env, timeout=timeout,
                                      cwd=cwd).returncode
        except subprocess.TimeoutExpired:
            return 124
        except OSError as error:
            print(f"cannot run {argv[0]}: {error}")
            return 127
