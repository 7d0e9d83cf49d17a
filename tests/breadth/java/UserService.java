package com.example;

import java.io.ObjectInputStream;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.Random;
import javax.crypto.Cipher;

public class UserService {
    public void find(Connection conn, String name) throws Exception {
        Statement st = conn.createStatement();
        // revu-eval: defect java.lang.security.audit.formatted-sql-string
        st.executeQuery("SELECT * FROM users WHERE name = '" + name + "'");
        // revu-eval: trap java.lang.security.audit.formatted-sql-string
        PreparedStatement ps = conn.prepareStatement("SELECT id, name FROM users WHERE name = ?");
        ps.setString(1, name);
    }

    public void run(String arg) throws Exception {
        // revu-eval: defect java.lang.security.audit.command-injection-process-builder
        Runtime.getRuntime().exec("sh -c ls " + arg);
    }

    public byte[] digest(byte[] data) throws Exception {
        // revu-eval: defect java.lang.security.audit.crypto.use-of-md5
        return MessageDigest.getInstance("MD5").digest(data);
    }

    public byte[] safeDigest(byte[] data) throws Exception {
        // revu-eval: trap java.lang.security.audit.crypto.use-of-md5
        return MessageDigest.getInstance("SHA-256").digest(data);
    }

    public Cipher cipher() throws Exception {
        // revu-eval: defect java.lang.security.audit.crypto.ecb-cipher
        return Cipher.getInstance("AES/ECB/PKCS5Padding");
    }

    public Cipher safeCipher() throws Exception {
        // revu-eval: trap java.lang.security.audit.crypto.ecb-cipher
        return Cipher.getInstance("AES/GCM/NoPadding");
    }

    public Object read(ObjectInputStream in) throws Exception {
        // revu-eval: defect java.lang.security.audit.object-deserialization
        return in.readObject();
    }

    public int token() {
        // revu-eval: defect java.lang.security.audit.crypto.weak-random
        int resetToken = new Random().nextInt();
        return resetToken;
    }

    // revu-eval: defect java.lang.security.audit.hardcoded-secret
    private static final String DB_PASSWORD = "hunter2-Pr0duction!";
}
