package io.granary.common.s3;

import io.netty.handler.codec.http.HttpResponseStatus;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * The body of CompleteMultipartUpload ({@code POST /bucket/key?uploadId=...}):
 *
 * <pre>{@code
 * <CompleteMultipartUpload xmlns="http://s3.amazonaws.com/doc/2006-03-01/">
 *   <Part><PartNumber>1</PartNumber><ETag>"a54357aff0632cce46d942af68356b38"</ETag></Part>
 *   ...
 * </CompleteMultipartUpload>
 * }</pre>
 *
 * <p>Checksum elements of a part ({@code ChecksumCRC32}, {@code ChecksumSHA256}...) and unknown elements are
 * ignored. Refused: no part (MalformedXML, as S3 does), a part without a number or ETag (MalformedXML), a number
 * outside 1..10000 (InvalidArgument), parts not in strictly ascending order (InvalidPartOrder).
 *
 * @param parts the parts in the order sent, which is ascending by part number
 */
public record CompleteMultipartUpload(List<CompletedPart> parts) {
  public static final int MAX_PART_NUMBER = 10_000;
  /**
   * Larger than the 1 MiB of the other documents: 10,000 parts, each with a quoted ETag and a checksum element,
   * are about 1.3 MB, and pretty-printing adds more.
   */
  public static final int MAX_BYTES = 4 << 20;
  /** 10,000 parts of Part, PartNumber, ETag and a few checksum elements each. */
  static final int MAX_ELEMENTS = 100_000;

  public CompleteMultipartUpload {
    parts = List.copyOf(parts);
  }

  /** Reads and parses the body from {@code in} (at most {@link #MAX_BYTES}). */
  public static CompleteMultipartUpload parse(InputStream in) {
    return parse(RequestXmlReader.readCapped(in, MAX_BYTES));
  }

  public static CompleteMultipartUpload parse(byte[] body) {
    XmlElement root = RequestXmlReader.parse(body, "CompleteMultipartUpload", MAX_BYTES, MAX_ELEMENTS);
    List<XmlElement> partElements = root.all("Part");
    if (partElements.isEmpty()) {
      throw S3ApiException.malformedXml("<CompleteMultipartUpload> lists no <Part>; at least one is required");
    }
    if (partElements.size() > MAX_PART_NUMBER) {
      throw S3ApiException.malformedXml(
          "<CompleteMultipartUpload> lists " + partElements.size() + " parts; at most " + MAX_PART_NUMBER
              + " are allowed");
    }
    List<CompletedPart> parts = new ArrayList<>(partElements.size());
    int previous = 0;
    for (XmlElement p : partElements) {
      int number = partNumber(p.childText("PartNumber"), parts.size() + 1);
      String etag = p.childText("ETag");
      if (etag == null || ETags.unquoted(etag).isEmpty()) {
        throw S3ApiException.malformedXml("part " + number + " has no <ETag>");
      }
      if (number <= previous) {
        throw S3ApiException.invalidPartOrder("the list of parts is not in ascending order: part " + number
            + " follows part " + previous + "; list each part once, by ascending part number");
      }
      previous = number;
      parts.add(new CompletedPart(number, etag));
    }
    return new CompleteMultipartUpload(parts);
  }

  private static int partNumber(String text, int position) {
    if (text == null) {
      throw S3ApiException.malformedXml("<Part> number " + position + " in the list has no <PartNumber>");
    }
    String t = text.strip();
    int n;
    try {
      n = Integer.parseInt(t);
    } catch (NumberFormatException e) {
      throw S3ApiException.malformedXml("<PartNumber> '" + RequestXmlReader.abbreviate(t) + "' is not an integer");
    }
    if (n < 1 || n > MAX_PART_NUMBER) {
      throw new S3ApiException(HttpResponseStatus.BAD_REQUEST, S3ApiException.INVALID_ARGUMENT,
          "part number must be an integer from 1 to " + MAX_PART_NUMBER + ", got " + n);
    }
    return n;
  }
}
