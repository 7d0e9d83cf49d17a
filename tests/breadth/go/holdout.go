package main

import (
	"crypto/sha1"
	"html/template"
	"os"
	"os/exec"
)

func fingerprint(b []byte) []byte {
	// revu-eval: defect G401
	h := sha1.New()
	h.Write(b)
	return h.Sum(nil)
}

func open(p string) {
	// revu-eval: defect G302
	os.Chmod(p, 0o777)
	// revu-eval: trap G302
	os.Chmod(p, 0o600)
}

func shell(cmd string) {
	// revu-eval: defect G204
	exec.Command("bash", "-c", cmd).Run()
}

func page(userInput string) template.HTML {
	// revu-eval: defect G203
	return template.HTML(userInput)
}
