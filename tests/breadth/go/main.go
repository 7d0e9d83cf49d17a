package main

import (
	"crypto/md5"
	"crypto/sha256"
	"crypto/tls"
	"database/sql"
	"fmt"
	"math/rand"
	"net/http"
	"os"
	"os/exec"
)

func digest(data []byte) []byte {
	// revu-eval: defect G401
	sum := md5.Sum(data)
	return sum[:]
}

func safeDigest(data []byte) []byte {
	// revu-eval: trap G401
	sum := sha256.Sum256(data)
	return sum[:]
}

func find(db *sql.DB, name string) {
	// revu-eval: defect G201
	db.Query(fmt.Sprintf("SELECT * FROM users WHERE name = '%s'", name))
	// revu-eval: trap G201
	db.Query("SELECT id, name FROM users WHERE name = $1", name)
}

func run(arg string) {
	// revu-eval: defect G204
	exec.Command("sh", "-c", "ls "+arg).Run()
}

func client() *http.Client {
	tr := &http.Transport{
		// revu-eval: defect G402
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true},
	}
	return &http.Client{Transport: tr}
}

func write(path string, data []byte) {
	// revu-eval: defect G306
	os.WriteFile(path, data, 0777)
	// revu-eval: trap G306
	os.WriteFile(path, data, 0600)
}

func token() int {
	// revu-eval: defect G404
	resetToken := rand.Intn(1000000)
	return resetToken
}

func serve() {
	// revu-eval: defect G114
	http.ListenAndServe(":8080", nil)
}

// revu-eval: defect G101
const apiPassword = "hunter2-Pr0duction!"
