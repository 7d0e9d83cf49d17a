package com.example;

import java.beans.XMLDecoder;
import java.io.InputStream;
import java.security.MessageDigest;
import javax.crypto.Cipher;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;

public class Holdout {
    public void ping(String host) throws Exception {
        // revu-eval: defect java.lang.security.audit.command-injection-process-builder
        new ProcessBuilder("sh", "-c", "ping -c 1 " + host).start();
    }

    public Cipher legacy() throws Exception {
        // revu-eval: defect java.lang.security.audit.crypto.des-is-deprecated
        return Cipher.getInstance("DES");
    }

    public Object decode(InputStream in) {
        // revu-eval: defect java.lang.security.audit.xml-decoder
        return new XMLDecoder(in).readObject();
    }

    public byte[] sum(byte[] b) throws Exception {
        // revu-eval: defect java.lang.security.audit.crypto.use-of-sha1
        return MessageDigest.getInstance("SHA1").digest(b);
    }

    public byte[] strong(byte[] b) throws Exception {
        // revu-eval: trap java.lang.security.audit.crypto.use-of-sha1
        return MessageDigest.getInstance("SHA-512").digest(b);
    }

    public void go(HttpServletRequest request, HttpServletResponse response) throws Exception {
        // revu-eval: defect java.lang.security.audit.unvalidated-redirect
        response.sendRedirect(request.getParameter("url"));
    }
}
